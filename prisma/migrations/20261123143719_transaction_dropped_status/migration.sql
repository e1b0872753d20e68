-- AlterEnum
ALTER TYPE "transaction_status" ADD VALUE 'dropped';
